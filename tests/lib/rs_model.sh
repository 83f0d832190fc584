# rs_model N R: resource sharing as written, N processes P[0..N-1] and R
# resources, with the results full and busy; sourced by the tests that
# build it at several sizes (tests/cli/check_memory.sh, storage_choice.sh,
# petsc.sh;
# the Python tests: santest.rs_text).
rs_model() {
    cat <<EOF2
identifiers
  N = [0..$(($1 - 1))]; R = $2; lambda = 3; mu = 6;
  f = lambda * (nb using < R);
events
  loc Acq (f)
  loc Rel (mu)
reachability = (nb using <= R);
network rs (continuous)
  aut P[N]
    stt sleeping to(using) Acq
    stt using to(sleeping) Rel
results
  full = nb using == R;
  busy = nb using;
EOF2
}
