"""The chapters' experiments (moving to tcplab.chapters)."""
