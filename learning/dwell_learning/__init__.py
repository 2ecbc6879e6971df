"""dwell's learning loop: features, the network, its exports, and (later) the simulator."""
