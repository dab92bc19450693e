-- splashd: private Storage bucket "edits" for rendered edits, one folder per user:
-- objects live at '<auth.uid()>/<edit id>.<ext>'. Upsert (x-upsert) needs the select, insert and
-- update policies together.

insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
values ('edits', 'edits', false, 52428800, array['image/jpeg', 'image/png', 'image/webp'])
on conflict (id) do nothing;

create policy "edits bucket: owner reads" on storage.objects
  for select to authenticated
  using (bucket_id = 'edits' and (storage.foldername(name))[1] = (select auth.uid()::text));

create policy "edits bucket: owner uploads" on storage.objects
  for insert to authenticated
  with check (bucket_id = 'edits' and (storage.foldername(name))[1] = (select auth.uid()::text));

create policy "edits bucket: owner updates" on storage.objects
  for update to authenticated
  using (bucket_id = 'edits' and (storage.foldername(name))[1] = (select auth.uid()::text))
  with check (bucket_id = 'edits' and (storage.foldername(name))[1] = (select auth.uid()::text));

create policy "edits bucket: owner deletes" on storage.objects
  for delete to authenticated
  using (bucket_id = 'edits' and (storage.foldername(name))[1] = (select auth.uid()::text));
