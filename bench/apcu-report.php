<?php
/**
 * The table of bench/apcu.sh: per case, every round's ops/s on each side, the medians and the
 * ratio of the medians. Reads DIR/shm-R.json and DIR/apcu-R.json (suite.php's --json output);
 * with a third argument "before", DIR/before-R.json (an older build) in APCu's place.
 *   php apcu-report.php DIR ROUNDS [before]
 */
[$_, $dir, $rounds] = $argv;
$rounds = (int) $rounds;
$other = ($argv[3] ?? '') === 'before' ? 'before' : 'apcu';
$label = $other === 'before' ? 'before' : 'APCu';
$sides = ['shm' => [], $other => []];
foreach (array_keys($sides) as $side) {
    for ($r = 1; $r <= $rounds; $r++) {
        $sides[$side][$r] = json_decode((string) file_get_contents("$dir/$side-$r.json"), true);
    }
}
function median(array $xs): float {
    sort($xs);
    $n = count($xs);
    return $n % 2 ? $xs[intdiv($n, 2)] : ($xs[$n / 2 - 1] + $xs[$n / 2]) / 2;
}
$fmt = fn(float $x): string => number_format($x);
echo "| case | shmcache apcu_* ops/s, rounds 1–$rounds | $label ops/s, rounds 1–$rounds | shmcache median | $label median | shmcache / $label |\n";
echo "|---|---|---|---:|---:|---:|\n";
foreach (array_keys($sides['shm'][1]) as $case) {
    $row = [];
    foreach (array_keys($sides) as $side) {
        $row[$side] = array_map(fn($r) => (float) ($sides[$side][$r][$case]['apcu'] ?? 0), range(1, $rounds));
    }
    $ms = median($row['shm']);
    $ma = median($row[$other]);
    printf("| %s | %s | %s | %s | %s | %s |\n", $case, implode(' ', array_map($fmt, $row['shm'])),
        implode(' ', array_map($fmt, $row[$other])), $fmt($ms), $fmt($ma), $ma > 0 ? sprintf('%.2f×', $ms / $ma) : '–');
}
