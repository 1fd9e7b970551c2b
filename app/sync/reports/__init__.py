"""What the views and commands report; may import every other package of app.sync."""
