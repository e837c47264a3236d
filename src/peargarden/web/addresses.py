"""Where a browser can reach ``pear serve``: the address the server was given when that is one a
browser can open, else (``0.0.0.0``, ``::``: every interface) this machine's own addresses — the one
its default route leaves from first, then the others its name resolves to — so the URL printed at
start opens on the phone beside it.  Nothing is sent: a UDP socket is only pointed somewhere to learn
which local address the system would use."""

from __future__ import annotations

import contextlib
import ipaddress
import socket

_ANY = ("0.0.0.0", "::", "")


def _local_addresses(ipv6: bool) -> list[str]:
    found: list[str] = []
    probes = (("192.0.2.1", socket.AF_INET), ("2001:db8::1", socket.AF_INET6))
    for probe, family in probes if ipv6 else probes[:1]:
        with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as udp:
            udp.connect((probe, 9))  # UDP connect sends nothing: it only picks the route
            found.append(str(udp.getsockname()[0]))
    with contextlib.suppress(OSError):
        found += socket.gethostbyname_ex(socket.gethostname())[2]
    usable = []
    for address in found:
        try:
            ip = ipaddress.ip_address(address.split("%")[0])
        except ValueError:
            continue
        if not (ip.is_loopback or ip.is_link_local or ip.is_unspecified) and address not in usable:
            usable.append(address)
    return usable


def _url(host: str, port: int, suffix: str) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/{suffix}"


def reachable_urls(host: str, port: int, suffix: str = "") -> list[str]:
    """URLs a browser can open for a server bound to *host*:*port* (*suffix*: what follows the ``/``)."""
    if host not in _ANY:
        return [_url(host, port, suffix)]
    # 0.0.0.0 takes IPv4 only; :: (dual stack) both.
    found = _local_addresses(ipv6=host == "::")
    return [_url(address, port, suffix) for address in found] or [_url("127.0.0.1", port, suffix)]
