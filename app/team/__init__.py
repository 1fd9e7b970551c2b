"""Team mode: several administrators on one show, coordinated through a shared PostgreSQL database.

Qt-free core, like app/api, app/store and app/sync. A solo profile never imports a driver or needs
a server: everything here is reached only when the profile has a team URL.
"""
