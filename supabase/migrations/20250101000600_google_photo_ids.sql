-- splashd: photos picked from Google Photos (issue 22) are `google:<media item id>`. The photo-id checks
-- of photos, likes and edits accept that source beside unsplash, nasa and local; nothing else changes.
-- Dropped and added again in one transaction: the new check is wider, so every existing row passes it
-- (Postgres still validates them, a scan of each table, well under a second at a million likes).

alter table public.photos drop constraint photos_photo_id_format,
  add constraint photos_photo_id_format check (photo_id ~ '^(unsplash|nasa|local|google):.+$');
alter table public.likes drop constraint likes_photo_id_format,
  add constraint likes_photo_id_format check (photo_id ~ '^(unsplash|nasa|local|google):.+$');
alter table public.edits drop constraint edits_photo_id_format,
  add constraint edits_photo_id_format check (photo_id ~ '^(unsplash|nasa|local|google):.+$');
