"""The test kit shared by every test folder (imported as ``kit``: ``tests/`` is on ``sys.path``).

- :mod:`kit.cli`: run ``pear`` in this process (the default) or as a real child process;
- :mod:`kit.thirdparty`: files under ``../shared/fixtures/thirdparty`` (skip when absent);
- :mod:`kit.formats`: hand-built PNG chunks and SillyTavern cards, independent of the code under test;
- :mod:`kit.workspace`: cards, lorebooks and folder digests for the data-folder and CLI tests;
- :mod:`kit.mvu_chats`: MVU cards played through the service on the fake server, recorded steps checked.
"""
