# ptxas -v figures of the local-memory kernels, compiled into the program
# (without CUDA: an empty table that says why): cmake/ptxas_report.cmake.
cml_ptxas_report(${CML_EXPERIMENT_TARGET} ${CML_EXPERIMENT_CU} cml_local_ptxas
                 experiments/local/local_body.h)
