"""Template filters of the scheduling pages."""
