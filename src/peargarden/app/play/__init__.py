"""app.play"""
