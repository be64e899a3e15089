<?php
// Router for PHP's built-in web server (php -S 127.0.0.1:PORT router.php): the php_rpc test service.
//   GET  /calc/service?wsdl            calc.wsdl (rpc/literal) with __BASE__ replaced by this server's URL
//   POST /calc/soap11, /calc/soap12    PHP's SoapServer in WSDL mode
// Every POST appends one line "PATH CONTENT-TYPE | SOAPACTION" to $LATHER_WSDL_LOG (the test counts them).

ini_set('soap.wsdl_cache_enabled', '0');
ini_set('display_errors', '0');

$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
$method = $_SERVER['REQUEST_METHOD'];
$base = 'http://' . $_SERVER['SERVER_NAME'] . ':' . $_SERVER['SERVER_PORT'];

if ($method === 'GET' && $path === '/calc/service' && isset($_GET['wsdl'])) {
    header('Content-Type: text/xml; charset=utf-8');
    echo str_replace('__BASE__', $base, file_get_contents(__DIR__ . '/calc.wsdl'));
    return true;
}
if ($method !== 'POST' || ($path !== '/calc/soap11' && $path !== '/calc/soap12')) {
    http_response_code(404);
    header('Content-Type: text/plain');
    echo "not found: $method $path\n";
    return true;
}

$log = getenv('LATHER_WSDL_LOG');
if ($log) {
    file_put_contents($log, $path . ' ' . ($_SERVER['CONTENT_TYPE'] ?? '-') . ' | '
                      . ($_SERVER['HTTP_SOAPACTION'] ?? '-') . "\n", FILE_APPEND | LOCK_EX);
}

class Calc {
    public function Add($a, $b) { return (int)$a + (int)$b; }

    public function Concat($first, $second) { return $first . $second; }

    // Integer division (truncated); divisor 0 raises the declared DivisionByZero fault.
    public function Divide($dividend, $divisor) {
        if ((int)$divisor === 0) {
            throw new SoapFault('Client', 'Division by zero', null,
                                (object)['dividend' => (int)$dividend], 'DivisionByZero');
        }
        return intdiv((int)$dividend, (int)$divisor);
    }

    // "[TITLE ]NAME, AGE, CITY (COUNTRY)", e.g. "DR Ada, 36, London (UK)".
    public function Describe($person) {
        $title = isset($person->title) ? $person->title . ' ' : '';
        return sprintf('%s%s, %d, %s (%s)', $title, $person->name, $person->age,
                       $person->address->city, $person->address->country);
    }
}

$server = new SoapServer(__DIR__ . '/calc.wsdl', ['cache_wsdl' => WSDL_CACHE_NONE]);
$server->setClass('Calc');
$server->handle();
return true;
