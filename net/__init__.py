"""Cabinet over the network: the wire, the game server, its client, and the SSH front."""
