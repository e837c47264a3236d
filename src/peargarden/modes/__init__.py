"""One home per way to play: ``stage`` (the agent stage), ``tavern`` (SillyTavern's exact request),
``work`` (写卡维护, the card project).  Each sub-package holds its setup, request builder, tools and disk
edge; the service picks one per beat from the mode table it is given."""
