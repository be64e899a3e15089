<?php
// Interop test: drive a live lather-service with PHP's SoapClient (Debian php-cli + php-soap) over
// SOAP 1.1 and SOAP 1.2.
//
// Usage: php tests/interop/php/soap_interop.php <path/to/lather-service>
//
// Starts the service on an ephemeral port with a SQLite store in a temporary directory, builds a
// SoapClient from the live GET /soap?wsdl for each SOAP version, calls every operation, then stops
// the service with SIGTERM and expects exit status 0. Prints one line per check ("PASS name" or
// "FAIL name: what differed") and finally "N passed, M failed"; exits non-zero on any failure.

declare(strict_types=1);

const STARTUP_TIMEOUT_S = 10.0;
const HTTP_TIMEOUT_S = 10;
const SHUTDOWN_TIMEOUT_S = 10.0;
const OVERFLOW_REASON = 'Increment: value 2147483647 is the largest xsd:int; value + 1 would overflow';

ini_set('soap.wsdl_cache_enabled', '0');
ini_set('default_socket_timeout', (string)HTTP_TIMEOUT_S);
ini_set('serialize_precision', '-1');  // doubles go out with the shortest round-trip form

$passed = 0;
$failed = 0;

function record(string $name, bool $ok, string $detail = ''): void {
    global $passed, $failed;
    if ($ok) {
        $passed++;
        echo "PASS  $name\n";
    } else {
        $failed++;
        echo "FAIL  $name" . ($detail !== '' ? ": $detail" : '') . "\n";
    }
}

/** Runs $fn: null means pass, a string says what differed; an exception is a failure too. */
function check(string $name, callable $fn): void {
    try {
        $outcome = $fn();
    } catch (Throwable $e) {
        $outcome = 'raised ' . get_class($e) . ': ' . strtok($e->getMessage(), "\n");
    }
    record($name, $outcome === null, (string)$outcome);
}

function show($v): string {
    return var_export($v, true);
}

function expect_equal($actual, $expected): ?string {
    return $actual === $expected ? null : 'got ' . show($actual) . ', expected ' . show($expected);
}

// ---------------------------------------------------------------------------------------------
// Service process handling

function read_log(string $path): string {
    $text = @file_get_contents($path);
    return $text === false ? '(no log)' : substr($text, -4000);
}

function start_service(string $binary, string $workdir): array {
    $port_file = "$workdir/port";
    $log = "$workdir/service.log";
    $cmd = [$binary, '--listen', '127.0.0.1:0', '--store', "sqlite:$workdir/c.db", '--port-file', $port_file,
            '--threads', '2'];
    $proc = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'w'], 2 => ['file', $log, 'a']],
                      $pipes);
    if (!is_resource($proc)) throw new RuntimeException("cannot start $binary");
    $deadline = microtime(true) + STARTUP_TIMEOUT_S;
    while (microtime(true) < $deadline) {
        $status = proc_get_status($proc);
        if (!$status['running']) {
            throw new RuntimeException('service exited early with status ' . $status['exitcode'] . '; log: ' . read_log($log));
        }
        clearstatcache();
        $text = @file_get_contents($port_file);
        if ($text !== false && str_ends_with($text, "\n") && ctype_digit(trim($text))) {
            return [$proc, (int)trim($text), $log];
        }
        usleep(50000);
    }
    proc_terminate($proc, 9);
    throw new RuntimeException('no port file after ' . STARTUP_TIMEOUT_S . ' s; log: ' . read_log($log));
}

/** SIGTERM, bounded wait; returns the exit status, or null if it had to be killed. */
function stop_service($proc): ?int {
    $status = proc_get_status($proc);
    if ($status['running']) {
        proc_terminate($proc, 15);
        $deadline = microtime(true) + SHUTDOWN_TIMEOUT_S;
        do {
            usleep(50000);
            $status = proc_get_status($proc);
        } while ($status['running'] && microtime(true) < $deadline);
        if ($status['running']) {
            proc_terminate($proc, 9);
            proc_close($proc);
            return null;
        }
    }
    // proc_get_status reports the exit code only once; it is in $status now.
    $code = $status['signaled'] ? null : $status['exitcode'];
    proc_close($proc);
    return $code;
}

// ---------------------------------------------------------------------------------------------
// Test data and comparison

function sample(string $firstname, string $lastname, string $city, int $zip, string $email, array $contactNos,
                string $designation, int $experience, float $salary, array $companies, string $dateOfBirth,
                bool $isMarried, array $children): array {
    return [
        'firstname' => $firstname, 'lastname' => $lastname, 'city' => $city, 'zip' => $zip, 'email' => $email,
        'contactNos' => ['item' => $contactNos], 'designation' => $designation, 'experience' => $experience,
        'salary' => $salary, 'companiesWorkedFor' => ['item' => $companies], 'dateOfBirth' => $dateOfBirth,
        'isMarried' => $isMarried, 'children' => ['sample' => $children],
    ];
}

// SoapClient sends a string for an xsd:dateTime as it is and hands a received one back as its string.
function build_samples(): array {
    $grandchild = sample('Åsa', 'Ærøskøbing-Møller', 'Ærøskøbing', 5970, 'asa@example.dk', [], 'Lærling', 0, 0.1,
        [], '2015-01-02T03:04:05.25Z', false, []);
    $child1 = sample('Léa', 'Müller', 'Zürich', 8001, 'lea.mueller@example.ch', ['+41 44 000 00 00'], 'Schülerin', 1,
        1234.5678, ['Kinderkrippe Zürich'], '2010-06-15T08:30:00+02:00', false, [$grandchild]);
    $child2 = sample('Taro', '山田', '東京', 1000001, 'taro@example.jp', ['03-0000-0000', '090-0000-0000'], '学生', 2,
        -0.5, [], '2012-12-31T23:59:59.999999+09:00', true, []);
    return [
        sample('Jürgen', 'Ørsted', 'Zürich', 8001, 'juergen@example.ch', [], 'Senior <Engineer> & "Architect" \'Ü\'',
            17, 1234.5678, ['Ærø Shipping A/S', '東京電力', 'Müller & Söhne <GmbH>'], '1980-02-29T13:45:30.123456+02:00',
            true, [$child1, $child2]),
        sample('Hanako', '山田', '東京', 4294967295, 'hanako@example.jp', ['+81 3 0000 0000'], '部長', 0, 0.1, [],
            '1975-07-01T00:00:00-05:30', true, []),
        sample('Søren', 'Kierkegaard', 'Ærøskøbing', 0, 'soren@example.dk',
            ['+45 00 00 00 00', '+45 11 11 11 11', '+45 22 22 22 22'], 'Filosof', -1, 3.0e10, ['Universitetet', ''],
            '1813-05-05T12:00:00.0005+01:00', false, []),
    ];
}

/** An xsd:dateTime with an explicit zone as [instant with microseconds, offset seconds], or null. */
function instant(string $text): ?array {
    if (!preg_match('/^(-?\d{4,}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/', $text, $m)) return null;
    $fraction = substr(str_pad($m[2], 6, '0'), 0, 6);
    $dt = DateTimeImmutable::createFromFormat('Y-m-d\TH:i:s.uP', "$m[1].$fraction" . ($m[3] === 'Z' ? '+00:00' : $m[3]));
    return $dt === false ? null : [$dt->format('U.u'), $dt->getOffset(), rtrim($m[2], '0')];
}

/** SoapClient gives an absent repetition as no property, one as a scalar/object (an array with
 *  SOAP_SINGLE_ELEMENT_ARRAYS, which is set) and an empty container element as an empty object. */
function as_list($container, string $child): array {
    if ($container === null || !isset($container->$child)) return [];
    $v = $container->$child;
    return is_array($v) ? $v : [$v];
}

const FIELDS = ['firstname', 'lastname', 'city', 'zip', 'email', 'contactNos', 'designation', 'experience', 'salary',
                'companiesWorkedFor', 'dateOfBirth', 'isMarried', 'children'];

function compare_samples(array $sent, $got_container, string $where, array &$diffs): void {
    $got = as_list($got_container, 'sample');
    if (count($got) !== count($sent)) {
        $diffs[] = "$where: " . count($got) . ' samples, expected ' . count($sent);
        return;
    }
    foreach ($sent as $i => $s) compare_sample($s, $got[$i], "{$where}[$i]", $diffs);
}

function compare_sample(array $s, $g, string $where, array &$diffs): void {
    if (!is_object($g)) {
        $diffs[] = "$where: expected a sample, got " . show($g);
        return;
    }
    $keys = array_keys(get_object_vars($g));
    if ($keys !== FIELDS) $diffs[] = "$where: fields " . implode(',', $keys) . ', expected ' . implode(',', FIELDS);
    foreach (['firstname', 'lastname', 'city', 'zip', 'email', 'designation', 'experience', 'salary', 'isMarried'] as $f) {
        $d = expect_equal($g->$f ?? null, $s[$f]);
        if ($d !== null) $diffs[] = "$where.$f: $d";
    }
    foreach (['contactNos', 'companiesWorkedFor'] as $f) {
        $d = expect_equal(as_list($g->$f ?? null, 'item'), $s[$f]['item']);
        if ($d !== null) $diffs[] = "$where.$f: $d";
    }
    $got_date = $g->dateOfBirth ?? null;
    $want = instant($s['dateOfBirth']);
    $have = is_string($got_date) ? instant($got_date) : null;
    if ($have === null) {
        $diffs[] = "$where.dateOfBirth: " . show($got_date) . ' is not an xsd:dateTime with a time zone';
    } elseif ($have !== $want) {
        $diffs[] = "$where.dateOfBirth: " . show($got_date) . ", expected {$s['dateOfBirth']} (same instant, zone and fraction)";
    }
    compare_samples($s['children']['sample'], $g->children ?? null, "$where.children", $diffs);
}

// ---------------------------------------------------------------------------------------------
// Checks

function http_status(SoapClient $client): ?int {
    $head = (string)$client->__getLastResponseHeaders();
    return preg_match('#^HTTP/\d\.\d (\d{3})#', $head, $m) ? (int)$m[1] : null;
}

function content_type(SoapClient $client): string {
    $head = (string)$client->__getLastResponseHeaders();
    return preg_match('/^Content-Type:\s*([^;\r\n]+)/mi', $head, $m) ? strtolower(trim($m[1])) : '(none)';
}

function version_checks(string $wsdl, int $port, string $label, int $version, string $media, string $code,
                        int $fault_status, string $env_ns): void {
    $endpoint = "http://127.0.0.1:$port/soap";
    try {
        $client = new SoapClient($wsdl, [
            'soap_version' => $version, 'trace' => true, 'exceptions' => true, 'cache_wsdl' => WSDL_CACHE_NONE,
            'connection_timeout' => HTTP_TIMEOUT_S, 'features' => SOAP_SINGLE_ELEMENT_ARRAYS,
            'encoding' => 'UTF-8', 'keep_alive' => true,
        ]);
        record("$label: SoapClient built from the live ?wsdl", true);
    } catch (Throwable $e) {
        record("$label: SoapClient built from the live ?wsdl", false, $e->getMessage());
        return;
    }

    check("$label: Increment(41) == 42", fn() => expect_equal($client->Increment(['value' => 41])->result, 42));
    check("$label: request went to the live address in a $label envelope", function () use ($client, $endpoint, $env_ns, $media) {
        $problems = [];
        if (!str_contains((string)$client->__getLastRequest(), "\"$env_ns\"")) $problems[] = "request envelope is not $env_ns";
        if (!preg_match('#^Content-Type: ' . preg_quote($media, '#') . '#mi', (string)$client->__getLastRequestHeaders())) {
            $problems[] = "request Content-Type is not $media";
        }
        if (!preg_match('#^POST /soap HTTP/1\.[01]\r?$.*^Host: 127\.0\.0\.1:' . parse_url($endpoint, PHP_URL_PORT) . '\r?$#msi',
                        (string)$client->__getLastRequestHeaders())) {
            $problems[] = 'request not sent to ' . $endpoint . ': ' . strtok((string)$client->__getLastRequestHeaders(), "\r\n");
        }
        return $problems ? implode('; ', $problems) : null;
    });
    check("$label: response Content-Type is $media", fn() => expect_equal(content_type($client), $media));
    check("$label: Increment(-1) == 0", fn() => expect_equal($client->Increment(['value' => -1])->result, 0));
    check("$label: Increment(2147483647) is a SoapFault $code with the service's reason",
        function () use ($client, $code, $fault_status) {
            try {
                $value = $client->Increment(['value' => 2147483647]);
            } catch (SoapFault $f) {
                $problems = [];
                $got_code = preg_replace('/^.*:/', '', (string)$f->faultcode);
                if ($got_code !== $code) $problems[] = 'faultcode ' . show($f->faultcode) . ", expected ...:$code";
                if ($f->faultstring !== OVERFLOW_REASON) {
                    $problems[] = 'faultstring ' . show($f->faultstring) . ', expected ' . show(OVERFLOW_REASON);
                }
                $status = http_status($client);
                if ($status !== $fault_status) $problems[] = "HTTP $status, expected $fault_status";
                return $problems ? implode('; ', $problems) : null;
            }
            return 'no SoapFault; returned ' . show($value);
        });
    check("$label: HelloWorld() == 'Hello World'", fn() => expect_equal($client->HelloWorld()->result, 'Hello World'));

    $name = 'php-' . str_replace(' ', '', $label) . '-' . bin2hex(random_bytes(16));
    check("$label: IncCounter twice on a fresh name gives 1, 2 and GetCounter gives 2", function () use ($client, $name) {
        $values = [$client->IncCounter(['name' => $name])->result, $client->IncCounter(['name' => $name])->result,
                   $client->GetCounter(['name' => $name])->result];
        return $values === [1, 2, 2] ? null : 'IncCounter, IncCounter, GetCounter gave ' . json_encode($values) . ', expected [1,2,2]';
    });
    check("$label: GetCounter on an unknown name == 0",
        fn() => expect_equal($client->GetCounter(['name' => 'php-unknown-' . bin2hex(random_bytes(16))])->result, 0));
    check("$label: EchoDataSamples echoes 3 samples (nested, non-ASCII, zoned dateTime, double, boolean)",
        function () use ($client) {
            $sent = build_samples();
            $reply = $client->EchoDataSamples(['samples' => ['sample' => $sent]]);
            $diffs = [];
            compare_samples($sent, $reply->samples ?? null, 'samples', $diffs);
            return $diffs ? count($diffs) . ' difference(s): ' . implode('; ', array_slice($diffs, 0, 10)) : null;
        });
    check("$label: EchoDataSamples with no samples echoes none", function () use ($client) {
        $reply = $client->EchoDataSamples(['samples' => ['sample' => []]]);
        $got = as_list($reply->samples ?? null, 'sample');
        return $got === [] ? null : 'got ' . json_encode($got);
    });
}

function main(array $argv): int {
    global $passed, $failed;
    if (count($argv) !== 2) {
        fwrite(STDERR, "usage: php soap_interop.php <path/to/lather-service>\n");
        return 2;
    }
    if (!extension_loaded('soap')) {
        echo "FAIL  PHP has no soap extension (install the Debian package php-soap)\n";
        return 1;
    }
    $binary = realpath($argv[1]) ?: $argv[1];
    echo 'php ' . PHP_VERSION . "\n";
    $workdir = sys_get_temp_dir() . '/lather-php-' . bin2hex(random_bytes(6));
    mkdir($workdir, 0700);
    try {
        try {
            [$proc, $port, $log] = start_service($binary, $workdir);
        } catch (Throwable $e) {
            record('service starts and writes its port file', false, $e->getMessage());
            return 1;
        }
        echo "service started on port $port (pid " . proc_get_status($proc)['pid'] . ")\n";
        try {
            $wsdl = "http://127.0.0.1:$port/soap?wsdl";
            version_checks($wsdl, $port, 'SOAP 1.1', SOAP_1_1, 'text/xml', 'Client', 500,
                           'http://schemas.xmlsoap.org/soap/envelope/');
            version_checks($wsdl, $port, 'SOAP 1.2', SOAP_1_2, 'application/soap+xml', 'Sender', 400,
                           'http://www.w3.org/2003/05/soap-envelope');
        } finally {
            $status = stop_service($proc);
            record('service exits 0 on SIGTERM', $status === 0, 'exit status ' . show($status) . '; log: ' . read_log($log));
        }
    } finally {
        foreach (glob("$workdir/*") ?: [] as $f) @unlink($f);
        @rmdir($workdir);
    }
    echo "$passed passed, $failed failed\n";
    return $failed === 0 ? 0 : 1;
}

exit(main($argv));
