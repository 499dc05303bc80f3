"""Where the server's jobs score texts and make predictions: ``serve --executor local`` (in the server's process,
the default) or ``--executor ray [--ray-address ADDR]`` (on a Ray cluster), through the executors of
``linguagym run`` and ``lct test``, built by the same ``make_executor``.

Each job gets an executor of its own, because an executor keeps what its last run did for that run's record and
several jobs run at once. The Ray cluster is joined (or, without an address, started) once, by the first job
that needs it, and left when the server stops: a job's own executor finds Ray connected, so it neither starts
a cluster nor shuts one down under the other jobs.
"""

from __future__ import annotations

import threading

from linguagym.executors import Executor, make_executor
from linguagym.executors.ray_executor import RayExecutor
from linguagym.web.config import WebConfig


class JobExecutors:
    """Executors for the server's jobs, with the server's --executor and --ray-address."""

    def __init__(self, config: WebConfig) -> None:
        self.name, self.address = config.executor, config.ray_address
        make_executor(self.name, address=self.address)  # refuses a bad choice, or Ray missing, at start-up
        self._lock = threading.Lock()
        self._cluster: RayExecutor | None = None  # the executor that joined or started the cluster (Ray only)

    def open(self) -> Executor:
        """An executor for one job (``with`` it: closing leaves the shared cluster alone). Joining the cluster
        can fail (``ExecutorError``): the job then fails with that message."""
        executor = make_executor(self.name, address=self.address)
        if self.name != "ray":
            return executor
        assert isinstance(executor, RayExecutor)
        with self._lock:
            if self._cluster is None:
                owner = make_executor(self.name, address=self.address)
                assert isinstance(owner, RayExecutor)
                owner.connect()
                self._cluster = owner
        executor.cluster = self._cluster.cluster  # the run record names the cluster, not "already connected"
        return executor

    def close(self) -> None:
        """Shut down a local cluster started for the jobs (a joined cluster goes on)."""
        with self._lock:
            if self._cluster is not None:
                self._cluster.close()
                self._cluster = None
