"""The UI's one door to the core: session, tasks, Qt bridges; imports only common."""
