"""One module per scenario of issue 11; each has ID, TITLE, TARGET and run(ctx) -> result dict."""
