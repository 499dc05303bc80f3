"""Who may do what on the web server, in one place.

- ``requests``: which Host the server answers for, whether a change came from its own pages (Origin/Referer),
  where a sign-in may send the browser next;
- ``gate``: the checks every request passes, in order (Host, Origin, then the CSRF token, an account or the access
  token), and the security headers every response gets; ``install`` puts them and the sign-in pages on an app;
- ``signin``: signing in (access token or username and password) and out;
- ``throttle``: how fast wrong tokens and passwords may be tried;
- ``accounts``: users, passwords, the sign-up switch; ``username_index``: the database's case-blind index on names;
- ``ownership``: the signed-in user, the owner a new row gets, and the one ``may_change`` rule;
- ``views``: the account pages (the admins' list of users, sign-up).

Nothing is imported here: ``db`` imports ``username_index`` while ``gate`` needs the app's context.
"""
