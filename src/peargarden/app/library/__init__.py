"""app.library"""
