"""MagVarUpdate (MVU) variables, pure: what a reply's update commands do to a chat's variables.

The values are JSON values as JavaScript holds them (see ``jsvalues``); every function takes the
variables it works on and returns or changes them, with no clock, file or network.
"""
