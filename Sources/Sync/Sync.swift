// Sync: the outbox push engine (issue 6).
