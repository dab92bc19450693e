"""devstack: one local process standing in for Supabase (Auth, PostgREST, Storage), Unsplash, NASA
and their image CDNs, with fault injection and counters for tests. See docs/devstack.md."""
