"""declare"""
