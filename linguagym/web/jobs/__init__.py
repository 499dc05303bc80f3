"""Background jobs (runs and capability jobs): the worker pool (``worker``), per-job locks across servers
(``locks``), each job's executor (``executors``), a job's row as progress and cancel (``rows``) and the life cycle
they share: claiming, cancelling, the status the pages poll, resuming after a restart (``lifecycle``)."""
