"""Classification losses for dense object detection (one-stage detectors)."""
