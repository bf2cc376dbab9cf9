"""Session harvesting commands: harvest, watch."""
