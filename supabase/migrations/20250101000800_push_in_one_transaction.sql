-- splashd: a batch of likes and their photos' rows in one request and one transaction.
--
-- `push_likes` upserts a batch of photos' rows and then the likes, one statement each, in the caller's
-- transaction: a second device (pulling, or live over Realtime, which sends a transaction's changes at
-- its commit) never sees a like whose photo's row is not there yet, and a row the server refuses (a
-- check constraint, a policy) refuses the whole batch, which the device then splits to find it. It runs
-- as its caller (security invoker): the row level security policies on photos and likes decide, as for
-- the tables' own endpoints. It answers the likes it kept otherwise than sent, for the device to take:
-- a later change made elsewhere stands (the last-word trigger of 20250101000700_last_word_wins.sql
-- decides), or the moment was clamped. A batch that all stood answers `[]`.
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

  -- The answer is the likes kept otherwise than sent (a later change made elsewhere stands, or the
  -- moment was clamped): the device holds the others as sent.
  return query
  with sent as (
    select r.photo_id, r.liked_at, r.deleted_at, coalesce(r.acted_at, now()) as acted_at, coalesce(r.acted_by, '') as acted_by
      from jsonb_to_recordset(coalesce(like_rows, '[]'::jsonb))
        as r(photo_id text, liked_at timestamptz, deleted_at timestamptz, acted_at timestamptz, acted_by text)
  ), kept as (
    insert into public.likes as l (photo_id, liked_at, deleted_at, acted_at, acted_by)
    select s.photo_id, s.liked_at, s.deleted_at, s.acted_at, s.acted_by from sent s
    on conflict (user_id, photo_id) do update
       set liked_at = excluded.liked_at, deleted_at = excluded.deleted_at, acted_at = excluded.acted_at,
           acted_by = excluded.acted_by
    returning l.*
  )
  select k.* from kept k join sent s on s.photo_id = k.photo_id
   where (k.liked_at, k.deleted_at, k.acted_at, k.acted_by) is distinct from (s.liked_at, s.deleted_at, s.acted_at, s.acted_by);
end;
$$;

revoke all on function public.push_likes(text, jsonb, jsonb) from public, anon;
grant execute on function public.push_likes(text, jsonb, jsonb) to authenticated;
