"""app.cards"""
