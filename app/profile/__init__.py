"""What opens a profile: settings, secrets, files, the demo, the client; below commands and ui."""
