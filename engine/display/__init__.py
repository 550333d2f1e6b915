"""What people look at: player text, the snapshot and the per-frame view, the run summary,
ASCII and PNG renders, the replay page, batch reports."""
