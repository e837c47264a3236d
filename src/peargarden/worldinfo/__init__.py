"""worldinfo"""
