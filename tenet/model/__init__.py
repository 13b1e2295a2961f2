"""The model: einsums, workloads, arrays and interconnects, dataflows, the space-time
relations and the exact metrics."""
