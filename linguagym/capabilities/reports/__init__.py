"""What capability tests show: the results files and the HTML report of a test run, and a test file at a
glance."""
