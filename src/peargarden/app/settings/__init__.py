"""app.settings"""
