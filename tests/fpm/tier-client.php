<?php
// The client side of scripts/test-tier.sh: FastCGI requests straight to PHP-FPM sockets.
//   php tier-client.php req SOCKET QUERY            one request, prints its RESULT json
//   php tier-client.php race N KEY SOCKET...        N concurrent add() of KEY over the sockets;
//                                                   prints how many returned true
//   php tier-client.php check SECONDS CLIENTS LOG SOCKET...
//        randomized checker: CLIENTS processes do get/set/delete on 4 keys over the sockets
//        for SECONDS, logging every call with its client-side start and end time; then every
//        read is checked: a value is stale when another write (or delete) of its key started
//        after the value's write returned and itself returned before the read was sent; a miss
//        is stale when a set returned before the read was sent and no delete can explain it.
//        Prints "reads N stale N failed N writes N stale-values N" (stale-values: the stale
//        reads that returned a value, not a miss).
//   php tier-client.php analyze LOG CLIENTS          the same check of the logs of a run
$docroot = getenv('TIER_SCRIPT') ?: __DIR__ . '/tier.php';

function fcgi_request(string $socket, string $query, float $timeout = 10.0): ?array {
	global $docroot;
	$s = @stream_socket_client("unix://$socket", $errno, $errstr, $timeout);
	if (!$s) {
		return null;
	}
	stream_set_timeout($s, (int) $timeout);
	$params = [
		'SCRIPT_FILENAME' => $docroot, 'SCRIPT_NAME' => '/tier.php', 'REQUEST_URI' => "/tier.php?$query",
		'DOCUMENT_URI' => '/tier.php', 'QUERY_STRING' => $query, 'REQUEST_METHOD' => 'GET',
		'SERVER_NAME' => 'localhost', 'SERVER_PROTOCOL' => 'HTTP/1.1', 'GATEWAY_INTERFACE' => 'CGI/1.1',
	];
	$record = fn(int $type, string $body) => pack('CCnnCx', 1, $type, 1, strlen($body), 0) . $body;
	$len = fn(int $n) => $n < 128 ? chr($n) : pack('N', $n | 0x80000000);
	$p = '';
	foreach ($params as $k => $v) {
		$p .= $len(strlen($k)) . $len(strlen($v)) . $k . $v;
	}
	fwrite($s, $record(1, pack('nCx5', 1, 0)) . $record(4, $p) . $record(4, '') . $record(5, ''));
	$out = '';
	while (true) {
		$h = fread_all($s, 8);
		if ($h === null) {
			fclose($s);
			return null;
		}
		$f = unpack('Cversion/Ctype/nid/nlen/Cpad', $h);
		$body = fread_all($s, $f['len'] + $f['pad']);
		if ($body === null) {
			fclose($s);
			return null;
		}
		if ($f['type'] === 6) {
			$out .= substr($body, 0, $f['len']);
		} elseif ($f['type'] === 3) {
			break;
		}
	}
	fclose($s);
	$p = strpos($out, 'RESULT {');
	if ($p === false) {
		return null;
	}
	return json_decode(trim(strtok(substr($out, $p + 7), "\n")), true);
}

function fread_all($s, int $n): ?string {
	$buf = '';
	while (strlen($buf) < $n) {
		$chunk = fread($s, $n - strlen($buf));
		if ($chunk === false || $chunk === '') {
			return null;
		}
		$buf .= $chunk;
	}
	return $buf;
}

switch ($argv[1]) {
	case 'req':
		$r = fcgi_request($argv[2], $argv[3]);
		echo $r === null ? "FAILED\n" : json_encode($r) . "\n";
		break;
	case 'race':
		[$n, $key, $sockets] = [(int) $argv[2], $argv[3], array_slice($argv, 4)];
		$pipes = [];
		for ($i = 0; $i < $n; $i++) {
			$pair = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, STREAM_IPPROTO_IP);
			$pid = pcntl_fork();
			if ($pid === 0) {
				fclose($pair[0]);
				usleep(200000 - ($i % 5) * 1000);
				$r = fcgi_request($sockets[$i % count($sockets)], "op=add&k=$key&v=$i");
				fwrite($pair[1], $r === null ? 'failed' : ($r['ok'] ? 'won' : 'lost'));
				exit(0);
			}
			fclose($pair[1]);
			$pipes[] = $pair[0];
		}
		$count = ['won' => 0, 'lost' => 0, 'failed' => 0];
		foreach ($pipes as $p) {
			$count[stream_get_contents($p)]++;
		}
		while (pcntl_wait($status) > 0);
		printf("won %d lost %d failed %d\n", $count['won'], $count['lost'], $count['failed']);
		break;
	case 'check':
		[$seconds, $clients, $log, $sockets] = [(float) $argv[2], (int) $argv[3], $argv[4], array_slice($argv, 5)];
		// Keys of this run only: values left by an earlier run would be nobody's write here.
		$prefix = 'c' . getmypid() . '-';
		for ($c = 0; $c < $clients; $c++) {
			if (pcntl_fork() === 0) {
				mt_srand(getmypid());
				$f = fopen("$log.$c", 'w');
				$end = microtime(true) + $seconds;
				$n = 0;
				while (microtime(true) < $end) {
					$key = $prefix . mt_rand(0, 3);
					$socket = $sockets[mt_rand(0, count($sockets) - 1)];
					$roll = mt_rand(0, 99);
					$t0 = microtime(true);
					if ($roll < 65) {
						$r = fcgi_request($socket, "op=get&k=$key");
						$what = $r === null ? 'failed' : ($r['found'] ? 'value:' . $r['value'] : 'miss');
						$op = 'get';
					} elseif ($roll < 92) {
						$value = "$c-" . (++$n);
						$r = fcgi_request($socket, "op=set&k=$key&v=$value");
						$what = $r === null ? 'failed' : ($r['ok'] ? "value:$value" : 'refused');
						$op = 'set';
					} else {
						$r = fcgi_request($socket, "op=delete&k=$key");
						$what = $r === null ? 'failed' : 'deleted';
						$op = 'delete';
					}
					$t1 = microtime(true);
					fwrite($f, sprintf("%s %s %s %.6f %.6f\n", $op, $key, $what, $t0, $t1));
				}
				fclose($f);
				exit(0);
			}
		}
		while (pcntl_wait($status) > 0);
		check_logs($log, $clients);
		break;
	case 'analyze':
		// The check of a run's logs again (scripts/test-tier.sh keeps them with TIER_KEEP=1).
		check_logs($argv[2], (int) $argv[3]);
		break;
}

/**
 * Checks the logs of a randomized run and prints "reads N stale N failed N writes N
 * stale-values N". A read of a value is stale when a write of its key started after that
 * value's write returned and itself returned before the read was sent; a miss is stale when a
 * set returned before the read was sent and no delete started before the read returned and
 * returned after that set started. Each read is checked in O(log n) against per-key arrays
 * sorted by time, so a run of minutes is checked in seconds.
 */
function check_logs(string $log, int $clients): void {
	$writes = [];
	$reads = [];
	$failed = 0;
	for ($c = 0; $c < $clients; $c++) {
		foreach (file("$log.$c", FILE_IGNORE_NEW_LINES) as $line) {
			[$op, $key, $what, $t0, $t1] = explode(' ', $line);
			if ($what === 'failed') {
				$failed++;
				continue;
			}
			if ($op === 'get') {
				$reads[] = [$key, $what, (float) $t0, (float) $t1];
			} elseif ($what !== 'refused') {
				$writes[$key][] = [$what, (float) $t0, (float) $t1];
			}
		}
	}
	$byValue = [];
	// Per key: every write by end time, with the latest-starting one among the first i
	// (`by_end`); the sets alike; the deletes by start time, with the latest-ending one among
	// the first i (`by_start`).
	$all = $sets = $deletes = [];
	foreach ($writes as $key => $ws) {
		$setList = $deleteList = [];
		foreach ($ws as $w) {
			if ($w[0] === 'deleted') {
				$deleteList[] = $w;
			} else {
				$byValue[$key][$w[0]] = $w;
				$setList[] = $w;
			}
		}
		$all[$key] = by_end($ws);
		$sets[$key] = by_end($setList);
		$deletes[$key] = by_start($deleteList);
	}
	$stale = 0;
	// Reads of a value (not misses) that were stale: a Redis restarted empty explains
	// misses, never an old value.
	$staleValues = 0;
	foreach ($reads as [$key, $what, $start, $end]) {
		if ($what === 'miss') {
			// The set that is hardest to explain away is the one that started last among those
			// that returned before the read was sent: a delete that explains it explains all.
			$set = latest_before($sets[$key] ?? null, $start);
			if ($set === null) {
				continue;
			}
			$delete = latest_before($deletes[$key] ?? null, $end);
			if ($delete !== null && $delete[2] > $set[1]) {
				continue;
			}
			$stale++;
			if ($stale <= 5) {
				fprintf(STDERR, "stale miss of %s at %.6f: %s was written by [%.6f, %.6f]\n", $key, $start, $set[0], $set[1], $set[2]);
			}
			continue;
		}
		$w = $byValue[$key][$what] ?? null;
		if ($w === null) {
			$stale++;
			$staleValues++;
			fprintf(STDERR, "read of %s=%s at %.6f: a value nobody wrote\n", $key, $what, $start);
			continue;
		}
		$other = latest_before($all[$key], $start);
		if ($other !== null && $other[1] > $w[2]) {
			$stale++;
			$staleValues++;
			if ($stale <= 5) {
				fprintf(STDERR, "stale read of %s=%s at %.6f: written by [%.6f, %.6f], overwritten (%s) by [%.6f, %.6f]\n",
					$key, $what, $start, $w[1], $w[2], $other[0], $other[1], $other[2]);
			}
		}
	}
	printf("reads %d stale %d failed %d writes %d stale-values %d\n", count($reads), $stale, $failed, array_sum(array_map('count', $writes)), $staleValues);
}

/** Calls [what, start, end] sorted by end; with each, the one that started last so far. */
function by_end(array $calls): array {
	usort($calls, fn($a, $b) => $a[2] <=> $b[2]);
	return prefix_latest($calls, 2, 1);
}

/** Calls sorted by start; with each, the one that ended last so far. */
function by_start(array $calls): array {
	usort($calls, fn($a, $b) => $a[1] <=> $b[1]);
	return prefix_latest($calls, 1, 2);
}

/** [keys sorted by field $sortedBy, for each index the call with the largest field $maxOf so far]. */
function prefix_latest(array $calls, int $sortedBy, int $maxOf): array {
	$keys = [];
	$best = [];
	$current = null;
	foreach ($calls as $call) {
		if ($current === null || $call[$maxOf] > $current[$maxOf]) {
			$current = $call;
		}
		$keys[] = $call[$sortedBy];
		$best[] = $current;
	}
	return [$keys, $best];
}

/** Among the calls whose sorted field is strictly below $t, the one prefix_latest kept; null if none. */
function latest_before(?array $index, float $t): ?array {
	if ($index === null) {
		return null;
	}
	[$keys, $best] = $index;
	$lo = 0;
	$hi = count($keys);
	while ($lo < $hi) {
		$mid = intdiv($lo + $hi, 2);
		if ($keys[$mid] < $t) {
			$lo = $mid + 1;
		} else {
			$hi = $mid;
		}
	}
	return $lo === 0 ? null : $best[$lo - 1];
}
