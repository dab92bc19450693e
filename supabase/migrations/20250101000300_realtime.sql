-- Realtime (issue 18): changes to these tables reach every signed-in device at once, each checked
-- against the subscriber's row level security. Supabase projects have the publication already
-- (possibly with tables in it); a bare Postgres does not. Both are handled without an error.
do $$
declare
  t text;
begin
  if not exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
  foreach t in array array['likes', 'edits', 'photos', 'profiles'] loop
    if not exists (select 1 from pg_publication_tables
                   where pubname = 'supabase_realtime' and schemaname = 'public' and tablename = t) then
      execute format('alter publication supabase_realtime add table public.%I', t);
    end if;
  end loop;
end
$$;

-- The whole old row in UPDATE and DELETE changes, not the key alone: a device can tell whose row a
-- removal was (the subscription's user_id filter can match it) and what an update replaced.
alter table public.likes replica identity full;
alter table public.edits replica identity full;
alter table public.photos replica identity full;
alter table public.profiles replica identity full;
