"""Work mode (写卡维护): the card project 创作/, its request, the file/bash/card tools and the mode switch."""
