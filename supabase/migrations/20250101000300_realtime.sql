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

-- An exact counter, not a count(*) per sign-up (issue 19: a million profiles): each row added or
-- removed moves it by one, under the row's lock, so concurrent sign-ups cannot lose one.
create or replace function public.track_user_stats()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    update public.user_stats
       set user_count = user_count + 1,
           last_signup_at = greatest(last_signup_at, new.created_at),
           updated_at = now()
     where id = 1;
  else
    update public.user_stats set user_count = user_count - 1, updated_at = now() where id = 1;
  end if;
  return null;
end;
$$;

create trigger profiles_track_user_stats
  after insert or delete on public.profiles
  for each row execute function public.track_user_stats();

-- user_count() reads the counter instead of counting every profile.
create or replace function public.user_count()
returns bigint
language sql
stable
security definer
set search_path = ''
as $$
  select user_count from public.user_stats where id = 1;
$$;

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
