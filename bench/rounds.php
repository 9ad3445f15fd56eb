<?php
/**
 * The timer every side-by-side benchmark uses (suite.php, micro.php).
 *
 * Runs each cache's $round() in a tight loop for about $seconds, $rounds times, and returns the
 * best ops/s per cache ($round returns how many operations it did). The caches take turns round
 * by round, so a slow minute of a shared machine lands on all of them instead of deciding one
 * cache's figure. Taking turns also means the others' rounds have pushed a cache's data out of
 * the CPU's caches; with $warmups > 0 every round first makes that many untimed calls, so a
 * working set that fits the CPU's caches is measured warm, as back-to-back rounds measured it.
 */
function best_rates(array $roundsByCache, int $rounds, float $seconds, int $warmups = 0): array {
    $best = array_fill_keys(array_keys($roundsByCache), 0.0);
    for ($r = 0; $r < $rounds; $r++) {
        foreach ($roundsByCache as $name => $round) {
            for ($w = 0; $w < $warmups; $w++) {
                $round();
            }
            $n  = 0;
            $t0 = hrtime(true);
            do {
                $n += $round();
            } while (hrtime(true) - $t0 < $seconds * 1e9);
            $best[$name] = max($best[$name], $n / ((hrtime(true) - $t0) / 1e9));
        }
    }
    return $best;
}
