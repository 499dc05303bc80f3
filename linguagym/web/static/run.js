// Live progress of a queued or running run (or capability job, data-url); reloads the page when it ends. A step
// without a count (total 0: loading a model) shows as a bar without an end, with its label and no count.
"use strict";
(function () {
  const box = document.getElementById("progress");
  if (!box) return;
  const bar = document.getElementById("run-progress");
  const label = document.getElementById("run-label");
  const count = document.getElementById("run-count");
  const status = document.getElementById("run-status");
  async function poll() {
    try {
      const url = box.dataset.url || `/api/runs/${box.dataset.run}`;
      const response = await fetch(url, {headers: {Accept: "application/json"}});
      const run = await response.json();
      status.textContent = run.status;
      status.className = `status ${run.status}`;
      label.textContent = run.label;
      const counted = run.total > 0;
      count.textContent = counted ? `${run.done} / ${run.total}` : "";
      count.hidden = !counted;
      if (counted) {
        bar.max = run.total;
        bar.value = run.done;
      } else {
        bar.removeAttribute("value");  // indeterminate
      }
      if (!["queued", "running"].includes(run.status)) { window.location.reload(); return; }
    } catch (error) { /* the server may be restarting: keep trying */ }
    setTimeout(poll, 1000);
  }
  setTimeout(poll, 500);
})();
