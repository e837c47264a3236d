"""The two hash/PRNG pieces behind SillyTavern's deterministic ``{{pick}}``.

``cyrb53`` is ST's ``getStringHash`` (53-bit, over UTF-16 code units); ``seeded_random`` follows
David Bau's ``seedrandom`` ARC4 generator, which ST seeds with a number (hence the ``"\\0"``).
"""

from __future__ import annotations

from collections.abc import Callable

_M32 = 0xFFFFFFFF


def _imul(a: int, b: int) -> int:
    return ((a & _M32) * (b & _M32)) & _M32


def _utf16_units(text: str) -> list[int]:
    data = text.encode("utf-16-le", "surrogatepass")
    return [data[i] | (data[i + 1] << 8) for i in range(0, len(data), 2)]


def cyrb53(text: str, seed: int = 0) -> int:
    h1 = (0xDEADBEEF ^ seed) & _M32
    h2 = (0x41C6CE57 ^ seed) & _M32
    for ch in _utf16_units(text):
        h1 = _imul(h1 ^ ch, 2654435761)
        h2 = _imul(h2 ^ ch, 1597334677)
    h1 = _imul(h1 ^ (h1 >> 16), 2246822507) ^ _imul(h2 ^ (h2 >> 13), 3266489909)
    h2 = _imul(h2 ^ (h2 >> 16), 2246822507) ^ _imul(h1 ^ (h1 >> 13), 3266489909)
    return 4294967296 * (2097151 & h2) + (h1 & _M32)


_WIDTH = 256
_MASK = 255


def seeded_random(seed: str) -> Callable[[], float]:
    """``new Math.seedrandom(<number>)`` where ``seed`` is ``String(number)``."""
    key: list[int] = []
    smear = 0
    text = seed + "\0"
    units = _utf16_units(text)
    for j, unit in enumerate(units):
        idx = _MASK & j
        prev = key[idx] if idx < len(key) else 0
        smear ^= (prev * 19) & _M32
        value = _MASK & (smear + unit)
        if idx < len(key):
            key[idx] = value
        else:
            key.append(value)
    if not key:
        key = [0]
    s = list(range(_WIDTH))
    j = 0
    for i in range(_WIDTH):
        t = s[i]
        j = _MASK & (j + key[i % len(key)] + t)
        s[i] = s[j]
        s[j] = t
    state = [0, 0]

    def g(count: int) -> int:
        i, jj = state
        r = 0
        for _ in range(count):
            i = _MASK & (i + 1)
            t = s[i]
            jj = _MASK & (jj + t)
            s[i] = s[jj]
            s[jj] = t
            r = r * _WIDTH + s[_MASK & (s[i] + s[jj])]
        state[0], state[1] = i, jj
        return r

    g(_WIDTH)

    def prng() -> float:
        n = g(6)
        d = float(_WIDTH**6)
        x = 0
        while n < 2**52:
            n = (n + x) * _WIDTH
            d *= _WIDTH
            x = g(1)
        while n >= 2**53:
            n //= 2
            d /= 2
            x >>= 1
        return (n + x) / d

    return prng
