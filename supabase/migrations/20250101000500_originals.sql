-- splashd: private Storage bucket "originals" for the original files of local photos (imported from a
-- folder) that an account liked or edited, so its other devices have the photo itself, not only its
-- metadata. One folder per user: objects live at '<auth.uid()>/<the photo id's hash>', named by the
-- content's SHA-256, so the same file from two devices is stored once. 200 MB at most per object
-- (splashd refuses larger ones before sending, originals.max_mib).

insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
values ('originals', 'originals', false, 209715200, array['image/jpeg', 'image/png', 'image/webp'])
on conflict (id) do nothing;

create policy "originals bucket: owner reads" on storage.objects
  for select to authenticated
  using (bucket_id = 'originals' and (storage.foldername(name))[1] = (select auth.uid()::text));

create policy "originals bucket: owner uploads" on storage.objects
  for insert to authenticated
  with check (bucket_id = 'originals' and (storage.foldername(name))[1] = (select auth.uid()::text));

create policy "originals bucket: owner updates" on storage.objects
  for update to authenticated
  using (bucket_id = 'originals' and (storage.foldername(name))[1] = (select auth.uid()::text))
  with check (bucket_id = 'originals' and (storage.foldername(name))[1] = (select auth.uid()::text));

create policy "originals bucket: owner deletes" on storage.objects
  for delete to authenticated
  using (bucket_id = 'originals' and (storage.foldername(name))[1] = (select auth.uid()::text));
