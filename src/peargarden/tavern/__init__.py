"""tavern"""
