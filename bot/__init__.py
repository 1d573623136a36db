"""The runtime every game shares: settings, storage, sessions, timers and the Bot."""
