"""Group chats: one beat, several speakers (see ``docs/group-chats.md``)."""
