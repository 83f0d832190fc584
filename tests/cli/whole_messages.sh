#!/bin/sh
# Messages are never cut mid-word (issue 29, item 5): a refusal naming a
# partition of a long automaton keeps the name, "in runs of N" and the
# advice whole; a group of automata with long names is named by whole
# names and "..." for the rest (SAN_DEBUG_VERIFY prints the partitions).
. "$(dirname "$0")/../lib/harness.sh"
long=Queue_with_a_rather_long_name_that_somebody_wrote_to_be_very_explicit_about_it
# M/M/1/3000 beside a flip, over the descriptor: power's five cycles
# fail the aggregation check over the queue's runs of levels
cat > "$tmp/q.san" <<EOT
identifiers
  QA = [0..3000];
events
  loc arrive (3.1)
  loc serve (3.0)
  loc up (0.7)
  loc down (1.3)
reachability = 1;
network longq (continuous)
  aut $long
    stt s[QA]
      to(++) arrive
      to(--) serve
  aut F
    stt f0
      to(f1) up
    stt f1
      to(f0) down
results
  empty = (st $long) == s[0];
EOT
"$SAN" solve "$tmp/q.san" --storage kron -m power --tol 1e-4 -q >/dev/null 2>"$tmp/err"
rc=$?
msg=$(grep 'san solve:' "$tmp/err")
case "$rc:$msg" in
  "1:san solve: the answer of power fails the aggregation test after "*" cycles: over automaton $long in runs of "*" its error is "*"; try "*"(direct, ml)") ok "long automaton name" ;;
  *) not_ok "long automaton name: exit $rc: $msg" ;;
esac

# eight automata of 70-character names, seven of them in one event
{
  printf 'events\n  syn s (2)\n'
  for i in 1 2 3 4 5 6 7 8; do printf '  loc t%d (1)\n' $i; done
  printf 'reachability = 1;\nnetwork group (continuous)\n'
  for i in 1 2 3 4 5 6 7 8; do
    printf '  aut Automaton_%d_with_a_name_long_enough_to_fill_a_line_of_text_xxxxxxxxx\n' $i
    if [ $i -lt 8 ]; then
      printf '    stt a0\n      to(a1) s\n    stt a1\n      to(a0) t%d\n' $i
    else
      printf '    stt a0\n      to(a1) t%d\n    stt a1\n      to(a0) t%d\n' $i $i
    fi
  done
} > "$tmp/g.san"
SAN_DEBUG_VERIFY=1 "$SAN" solve "$tmp/g.san" -m power --tol 1e-12 -q --lump off >/dev/null 2>"$tmp/err2"
line=$(grep '^part [0-9]*: automata ' "$tmp/err2" | head -1)
if [ -z "$line" ]; then
  not_ok "no group partition printed"; sed -n 1,5p "$tmp/err2"
else
  # every name listed is whole, then ", ..." and the event
  names=$(printf '%s\n' "$line" | sed 's/^part [0-9]*: automata //; s/ (event s) ([0-9]* blocks)$//')
  case "$line" in *", ... (event s) ("*) ok "group name" ;; *) not_ok "group name: $line" ;; esac
  for n in $(printf '%s\n' "$names" | tr ',' ' '); do
    case "$n" in
      ...|Automaton_[1-8]_with_a_name_long_enough_to_fill_a_line_of_text_xxxxxxxxx) ok "whole name $n" ;;
      *) not_ok "a name cut: '$n' in $line" ;;
    esac
  done
fi
harness_end
