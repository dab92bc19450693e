// The Account module: Supabase Auth, sessions, profiles (see issue 5).
