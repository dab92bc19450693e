-- splashd: a removed edit stays removed. Edits never change once made (an edit id is never reused),
-- so the only update a tombstoned edit can meet is an upload sent again by a device that did not
-- learn in time whether its first try landed (a kill or a cut network cut off the answer). That
-- resend used to clear deleted_at and bring back an edit another device had removed later; now the
-- row keeps its tombstone (updated_at still moves, so the sender's next pull reads it), and the
-- sender, which sees the tombstone in the answer, deletes the object it uploaded again.

create or replace function public.keep_edit_removed()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if old.deleted_at is not null then
    return old;
  end if;
  return new;
end;
$$;

revoke all on function public.keep_edit_removed() from public, anon, authenticated;

-- Named to fire before edits_set_updated_at (triggers fire in name order), which then moves updated_at.
create trigger edits_a_removal_is_final before update on public.edits
  for each row execute function public.keep_edit_removed();
