-- splashd: account data kept in Supabase (profiles, likes, edits, photo metadata).
-- Written for a real Supabase project (`supabase db push` or the SQL editor); devstack applies it
-- unchanged on top of devstack/sql/supabase_base.sql.
-- Every table has row level security: a signed-in user reads and writes only their own rows.
-- Tombstones (deleted_at) instead of hard deletes let clients pull deletions by (updated_at, id).

-- ------------------------------------------------------------------ helpers

create or replace function public.set_updated_at()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  new.updated_at := now();
  return new;
end;
$$;

-- ------------------------------------------------------------------ profiles

create table public.profiles (
  id uuid primary key references auth.users (id) on delete cascade,
  username text not null unique
    constraint profiles_username_format check (username ~ '^[a-z0-9_]{3,32}$'),
  email text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_sign_in_at timestamptz
);

comment on table public.profiles is 'One row per auth user, created by a trigger on auth.users.';

create trigger profiles_set_updated_at
  before update on public.profiles
  for each row execute function public.set_updated_at();

-- A username from the sign-up metadata ("username"), else from the e-mail's local part; made to fit
-- [a-z0-9_]{3,32} and made unique with a suffix taken from the user id.
create or replace function public.handle_new_user()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  wanted text;
  candidate text;
begin
  wanted := lower(coalesce(nullif(new.raw_user_meta_data ->> 'username', ''),
                           split_part(coalesce(new.email, ''), '@', 1)));
  wanted := regexp_replace(wanted, '[^a-z0-9_]', '_', 'g');
  if length(wanted) < 3 then
    wanted := rpad(coalesce(wanted, ''), 3, '_');
  end if;
  candidate := left(wanted, 32);
  if exists (select 1 from public.profiles p where p.username = candidate) then
    candidate := left(wanted, 23) || '_' || left(replace(new.id::text, '-', ''), 8);
  end if;
  if exists (select 1 from public.profiles p where p.username = candidate) then
    candidate := 'user_' || left(replace(new.id::text, '-', ''), 27);
  end if;
  insert into public.profiles (id, username, email, created_at, last_sign_in_at)
  values (new.id, candidate, new.email, coalesce(new.created_at, now()), new.last_sign_in_at);
  return new;
end;
$$;

create trigger on_auth_user_created
  after insert on auth.users
  for each row execute function public.handle_new_user();

-- Keep the profile's copy of e-mail and last sign-in in step with auth.users.
create or replace function public.handle_user_updated()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  update public.profiles p
     set email = new.email,
         last_sign_in_at = new.last_sign_in_at
   where p.id = new.id
     and (p.email is distinct from new.email
          or p.last_sign_in_at is distinct from new.last_sign_in_at);
  return new;
end;
$$;

create trigger on_auth_user_updated
  after update of email, last_sign_in_at on auth.users
  for each row execute function public.handle_user_updated();

alter table public.profiles enable row level security;

create policy "profiles: owner reads" on public.profiles
  for select to authenticated using ((select auth.uid()) = id);
create policy "profiles: owner updates" on public.profiles
  for update to authenticated
  using ((select auth.uid()) = id) with check ((select auth.uid()) = id);

-- Users may change their username only; the rest is maintained by the triggers above.
revoke all on public.profiles from anon;
revoke insert, update, delete, truncate on public.profiles from authenticated;
grant update (username) on public.profiles to authenticated;

-- ------------------------------------------------------------------ photos
-- Metadata of the remote photos a user's likes and edits refer to, one copy per user, so that a
-- second device can show a collection without asking Unsplash or NASA again.

create table public.photos (
  user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  photo_id text not null
    constraint photos_photo_id_format check (photo_id ~ '^(unsplash|nasa|local):.+$'),
  source text generated always as (split_part(photo_id, ':', 1)) stored,
  title text,
  description text,
  author_name text,
  author_url text,
  page_url text,
  color text,
  width integer check (width is null or width > 0),
  height integer check (height is null or height > 0),
  urls jsonb not null default '{}'::jsonb,
  metadata jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  primary key (user_id, photo_id)
);

create index photos_user_updated_idx on public.photos (user_id, updated_at, photo_id);

-- ------------------------------------------------------------------ likes

create table public.likes (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  photo_id text not null
    constraint likes_photo_id_format check (photo_id ~ '^(unsplash|nasa|local):.+$'),
  liked_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  constraint likes_user_photo_key unique (user_id, photo_id)
);

create index likes_user_updated_idx on public.likes (user_id, updated_at, id);

-- ------------------------------------------------------------------ edits
-- id is chosen by the client so that a resent insert is harmless. The rendered image lives in the
-- private Storage bucket "edits" at '<user id>/<edit id>.<ext>'.

create table public.edits (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  photo_id text not null
    constraint edits_photo_id_format check (photo_id ~ '^(unsplash|nasa|local):.+$'),
  pipeline jsonb not null default '[]'::jsonb
    constraint edits_pipeline_shape check (jsonb_typeof(pipeline) in ('array', 'object')),
  storage_path text
    constraint edits_storage_path_owner check (storage_path is null
                                               or storage_path like user_id::text || '/%'),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);

create index edits_user_updated_idx on public.edits (user_id, updated_at, id);

-- ------------------------------------------------------------------ updated_at and RLS

create trigger photos_set_updated_at before insert or update on public.photos
  for each row execute function public.set_updated_at();
create trigger likes_set_updated_at before insert or update on public.likes
  for each row execute function public.set_updated_at();
create trigger edits_set_updated_at before insert or update on public.edits
  for each row execute function public.set_updated_at();

alter table public.photos enable row level security;
alter table public.likes enable row level security;
alter table public.edits enable row level security;

create policy "photos: owner reads" on public.photos
  for select to authenticated using ((select auth.uid()) = user_id);
create policy "photos: owner inserts" on public.photos
  for insert to authenticated with check ((select auth.uid()) = user_id);
create policy "photos: owner updates" on public.photos
  for update to authenticated
  using ((select auth.uid()) = user_id) with check ((select auth.uid()) = user_id);
create policy "photos: owner deletes" on public.photos
  for delete to authenticated using ((select auth.uid()) = user_id);

create policy "likes: owner reads" on public.likes
  for select to authenticated using ((select auth.uid()) = user_id);
create policy "likes: owner inserts" on public.likes
  for insert to authenticated with check ((select auth.uid()) = user_id);
create policy "likes: owner updates" on public.likes
  for update to authenticated
  using ((select auth.uid()) = user_id) with check ((select auth.uid()) = user_id);
create policy "likes: owner deletes" on public.likes
  for delete to authenticated using ((select auth.uid()) = user_id);

create policy "edits: owner reads" on public.edits
  for select to authenticated using ((select auth.uid()) = user_id);
create policy "edits: owner inserts" on public.edits
  for insert to authenticated with check ((select auth.uid()) = user_id);
create policy "edits: owner updates" on public.edits
  for update to authenticated
  using ((select auth.uid()) = user_id) with check ((select auth.uid()) = user_id);
create policy "edits: owner deletes" on public.edits
  for delete to authenticated using ((select auth.uid()) = user_id);

revoke all on public.photos, public.likes, public.edits from anon;

-- ------------------------------------------------------------------ public, read-only data

-- Newest sign-ups without e-mail addresses. The view runs with its owner's rights (it is meant to
-- bypass the owner-only policies on profiles) and exposes only these two columns.
create view public.recent_signups as
  select p.username, p.created_at
    from public.profiles p
   order by p.created_at desc, p.username
   limit 100;

revoke all on public.recent_signups from anon, authenticated;
grant select on public.recent_signups to anon, authenticated;

create or replace function public.user_count()
returns bigint
language sql
stable
security definer
set search_path = ''
as $$
  select count(*) from public.profiles;
$$;

revoke all on function public.user_count() from public;
grant execute on function public.user_count() to anon, authenticated, service_role;

-- Trigger functions are not meant to be called through the API.
revoke all on function public.handle_new_user() from public, anon, authenticated;
revoke all on function public.handle_user_updated() from public, anon, authenticated;
