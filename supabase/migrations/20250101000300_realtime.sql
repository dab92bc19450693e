-- Realtime (issue 18): changes to these tables reach every signed-in device at once, each checked
-- against the subscriber's row level security.

-- How many accounts there are and when the newest signed up, in one row every signed-in user may
-- read, kept by a trigger on profiles: a device learns of every sign-up through Realtime (profiles
-- themselves are readable by their owner only) and then reads the count and the recent sign-ups as
-- before (anon has those through user_count() and recent_signups).
create table public.user_stats (
  id smallint primary key default 1 constraint user_stats_one_row check (id = 1),
  user_count bigint not null default 0,
  last_signup_at timestamptz,
  updated_at timestamptz not null default now()
);

insert into public.user_stats (id, user_count, last_signup_at)
  select 1, count(*), max(created_at) from public.profiles;

create or replace function public.track_user_stats()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  update public.user_stats
     set user_count = (select count(*) from public.profiles),
         last_signup_at = (select max(created_at) from public.profiles),
         updated_at = now()
   where id = 1;
  return null;
end;
$$;

create trigger profiles_track_user_stats
  after insert or delete on public.profiles
  for each statement execute function public.track_user_stats();

revoke all on function public.track_user_stats() from public, anon, authenticated;

alter table public.user_stats enable row level security;
create policy "user_stats: signed-in users read" on public.user_stats for select to authenticated using (true);
revoke all on public.user_stats from anon, authenticated;
grant select on public.user_stats to authenticated;

-- Supabase projects have the publication already (possibly with tables in it); a bare Postgres does
-- not. Both are handled without an error.
do $$
declare
  t text;
begin
  if not exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
  foreach t in array array['likes', 'edits', 'photos', 'profiles', 'user_stats'] loop
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
