-- splashd: a batch of likes and their photos' rows in one request and one transaction.
--
-- `push_likes` upserts a batch of photos' rows and then the likes, one statement each, in the caller's
-- transaction: a second device (pulling, or live over Realtime, which sends a transaction's changes at
-- its commit) never sees a like whose photo's row is not there yet, and a row the server refuses (a
-- check constraint, a policy) refuses the whole batch, which the device then splits to find it. It runs
-- as its caller (security invoker): the row level security policies on photos and likes decide, as for
-- the tables' own endpoints. The likes come back as kept, for the device to take a later change made
-- elsewhere (the last-word trigger of 20250101000700_last_word_wins.sql decides which stands).
--
-- `photos.written_by` is the device that last wrote a photo's row through `push_likes` (its `device`),
-- and '' for any other write (the REST endpoint, the dashboard): a device's pull passes over the rows
-- it wrote itself (and the likes it acted on, `acted_by`), which its store holds as the server does.

-- ------------------------------------------------------------------ who wrote a photo's row

alter table public.photos
  add column written_by text not null default ''
    constraint photos_written_by_length check (length(written_by) <= 64);

-- The writer is a setting of the transaction that only push_likes sets, so a write that comes another
-- way cannot keep an earlier writer's name.
create or replace function public.photos_written_by()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  new.written_by := coalesce(current_setting('splashd.writer', true), '');
  return new;
end;
$$;

revoke all on function public.photos_written_by() from public, anon, authenticated;

create trigger photos_written_by before insert or update on public.photos
  for each row execute function public.photos_written_by();

-- ------------------------------------------------------------------ the batch

create or replace function public.push_likes(device text, photo_rows jsonb, like_rows jsonb)
returns setof public.likes
language plpgsql
volatile
security invoker
set search_path = ''
as $$
begin
  perform set_config('splashd.writer', coalesce(device, ''), true);
  insert into public.photos as p (photo_id, title, description, author_name, author_url, color, width, height, urls,
                                  original_sha256, original_note)
  select r.photo_id, r.title, r.description, r.author_name, r.author_url, r.color, r.width, r.height,
         coalesce(r.urls, '{}'::jsonb), r.original_sha256, r.original_note
    from jsonb_to_recordset(coalesce(photo_rows, '[]'::jsonb))
      as r(photo_id text, title text, description text, author_name text, author_url text, color text, width integer,
           height integer, urls jsonb, original_sha256 text, original_note text)
  on conflict (user_id, photo_id) do update
     set title = excluded.title, description = excluded.description, author_name = excluded.author_name,
         author_url = excluded.author_url, color = excluded.color, width = excluded.width, height = excluded.height,
         urls = excluded.urls, original_sha256 = excluded.original_sha256, original_note = excluded.original_note;
  perform set_config('splashd.writer', '', true);

  return query
  insert into public.likes as l (photo_id, liked_at, deleted_at, acted_at, acted_by)
  select r.photo_id, r.liked_at, r.deleted_at, coalesce(r.acted_at, now()), coalesce(r.acted_by, '')
    from jsonb_to_recordset(coalesce(like_rows, '[]'::jsonb))
      as r(photo_id text, liked_at timestamptz, deleted_at timestamptz, acted_at timestamptz, acted_by text)
  on conflict (user_id, photo_id) do update
     set liked_at = excluded.liked_at, deleted_at = excluded.deleted_at, acted_at = excluded.acted_at,
         acted_by = excluded.acted_by
  returning l.*;
end;
$$;

revoke all on function public.push_likes(text, jsonb, jsonb) from public, anon;
grant execute on function public.push_likes(text, jsonb, jsonb) to authenticated;
