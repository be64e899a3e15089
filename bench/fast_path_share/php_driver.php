<?php
// bench/fast-path-share's PHP SoapClient driver: ordinary calls through SoapClient built from ?wsdl.
// usage: php php_driver.php WSDL_URL 11|12 N COUNTER
// N Increment calls (values 41, 42, ...), then HelloWorld, IncCounter(COUNTER), GetCounter(COUNTER), with
// the options tests/interop/php/soap_interop.php uses (soap_version SOAP_1_1 or SOAP_1_2).
declare(strict_types=1);
ini_set('soap.wsdl_cache_enabled', '0');
ini_set('default_socket_timeout', '10');
[$_, $wsdl, $version, $count, $counter] = $argv;
$client = new SoapClient($wsdl, [
    'soap_version' => $version === '12' ? SOAP_1_2 : SOAP_1_1, 'trace' => true, 'exceptions' => true,
    'cache_wsdl' => WSDL_CACHE_NONE, 'connection_timeout' => 10, 'features' => SOAP_SINGLE_ELEMENT_ARRAYS,
    'encoding' => 'UTF-8', 'keep_alive' => true,
]);
$failed = 0;
for ($i = 0; $i < (int)$count; $i++) {
    if ($client->Increment(['value' => 41 + $i])->result !== 42 + $i) $failed++;
}
if ($client->HelloWorld()->result !== 'Hello World') $failed++;
$first = $client->IncCounter(['name' => $counter])->result;
if ($client->GetCounter(['name' => $counter])->result !== $first) $failed++;
echo "php-soapclient: " . ((int)$count + 3) . " calls, $failed wrong answers\n";
exit($failed ? 1 : 0);
