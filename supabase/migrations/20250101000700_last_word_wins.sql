-- splashd: the person's last word wins across devices.
--
-- Devices queue changes while offline and send them when they can, so the order changes arrive in is
-- not the order the person made them. Each like and each username now carries the moment the person
-- acted, on this server's clock (each device keeps its offset to it from the Date of the answers it
-- gets), and the device that acted: `acted_at`, `acted_by` on likes; `username_set_at`,
-- `username_set_by` on profiles. A write that is not later than what the row holds — by that moment,
-- then by device id, so every replica decides alike — leaves the row as it is, and the writer reads the
-- row as kept in the answer (`return=representation`). A moment further than two seconds past this
-- server's now is a device's clock gone wrong: it is taken as now. A write that carries no moment of its
-- own (an older client, the dashboard) is made now, as before.
--
-- Also the Storage object of a photo's original (`original_sha256`: the SHA-256 of the file, whose first
-- 16 hex digits name the object in the private bucket "originals") and why a photo has none
-- (`original_note`, e.g. too large), so that another device can fetch it or say why it cannot.
--
-- Existing rows keep their last action's time (an unlike's, else the like's; a profile's last update)
-- and no device. Applied in one transaction; the backfill does not move updated_at, so no device pulls
-- its likes again.

-- ------------------------------------------------------------------ the rule

-- A moment more than two seconds past this server's now is a device's clock gone wrong: it is now.
-- Callable by every role that writes likes or profiles (the triggers below call it as that role).
create or replace function public.action_time(at timestamptz)
returns timestamptz
language sql
stable
set search_path = ''
as $$
  select case when at > now() + interval '2 seconds' then now() else at end;
$$;

-- ------------------------------------------------------------------ likes

alter table public.likes
  add column acted_at timestamptz,
  add column acted_by text not null default '';

alter table public.likes disable trigger likes_set_updated_at;
update public.likes set acted_at = coalesce(deleted_at, liked_at);
alter table public.likes enable trigger likes_set_updated_at;

alter table public.likes
  alter column acted_at set default now(),
  alter column acted_at set not null,
  add constraint likes_acted_by_length check (length(acted_by) <= 64);

-- Replaces set_updated_at on likes: a write that loses keeps the row whole, updated_at included, so no
-- device pulls a row that did not change.
create or replace function public.likes_last_word_wins()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  new.acted_at := public.action_time(new.acted_at);
  if tg_op = 'UPDATE' then
    -- The same change sent again: nothing to write.
    if new is not distinct from old then
      return old;
    end if;
    if (new.acted_at, new.acted_by) = (old.acted_at, old.acted_by) then
      if (new.liked_at, new.deleted_at) is distinct from (old.liked_at, old.deleted_at) then
        -- A change without a moment of its own.
        new.acted_at := now();
        new.acted_by := '';
      end if;
    elsif (new.acted_at, new.acted_by) < (old.acted_at, old.acted_by) then
      return old;
    end if;
  end if;
  new.updated_at := now();
  return new;
end;
$$;

revoke all on function public.likes_last_word_wins() from public, anon, authenticated;

drop trigger likes_set_updated_at on public.likes;
create trigger likes_last_word_wins before insert or update on public.likes
  for each row execute function public.likes_last_word_wins();

-- ------------------------------------------------------------------ profiles

alter table public.profiles
  add column username_set_at timestamptz,
  add column username_set_by text not null default '';

alter table public.profiles disable trigger profiles_set_updated_at;
update public.profiles set username_set_at = coalesce(updated_at, created_at);
alter table public.profiles enable trigger profiles_set_updated_at;

alter table public.profiles
  alter column username_set_at set default now(),
  alter column username_set_at set not null,
  add constraint profiles_username_set_by_length check (length(username_set_by) <= 64);

-- A rename that is not later than the username's keeps the username (and its moment); the rest of the
-- row is written as asked. Named to fire before profiles_set_updated_at (triggers fire in name order).
create or replace function public.profiles_last_word_wins()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  new.username_set_at := public.action_time(new.username_set_at);
  if (new.username_set_at, new.username_set_by) = (old.username_set_at, old.username_set_by) then
    if new.username is distinct from old.username then
      new.username_set_at := now();
      new.username_set_by := '';
    end if;
  elsif (new.username_set_at, new.username_set_by) < (old.username_set_at, old.username_set_by) then
    new.username := old.username;
    new.username_set_at := old.username_set_at;
    new.username_set_by := old.username_set_by;
  end if;
  return new;
end;
$$;

revoke all on function public.profiles_last_word_wins() from public, anon, authenticated;

create trigger profiles_a_last_word_wins before update on public.profiles
  for each row execute function public.profiles_last_word_wins();

grant update (username, username_set_at, username_set_by) on public.profiles to authenticated;

-- ------------------------------------------------------------------ photos' originals

alter table public.photos
  add column original_sha256 text
    constraint photos_original_sha256_format check (original_sha256 is null or original_sha256 ~ '^[0-9a-f]{64}$'),
  add column original_note text
    constraint photos_original_note_length check (original_note is null or length(original_note) <= 500);
