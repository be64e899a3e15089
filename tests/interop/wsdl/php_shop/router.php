<?php
// Router for PHP's built-in web server (php -S 127.0.0.1:PORT router.php): the php_shop test service.
//   GET  /shop/service?wsdl             shop.wsdl with __BASE__ replaced by this server's URL
//   GET  /shop/types/shop-types.xsd     the imported schema
//   POST /shop/soap11, /shop/soap12     PHP's SoapServer in WSDL mode (SOAP 1.1 and SOAP 1.2 ports)
// Every POST appends one line "PATH CONTENT-TYPE | SOAPACTION" to $LATHER_WSDL_LOG (the test counts them).
// Orders are kept in $LATHER_WSDL_STATE (a JSON file) so that GetStatus can find them.

ini_set('soap.wsdl_cache_enabled', '0');
ini_set('serialize_precision', '-1');
ini_set('display_errors', '0');

$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
$method = $_SERVER['REQUEST_METHOD'];
$base = 'http://' . $_SERVER['SERVER_NAME'] . ':' . $_SERVER['SERVER_PORT'];

if ($method === 'GET' && $path === '/shop/service' && isset($_GET['wsdl'])) {
    header('Content-Type: text/xml; charset=utf-8');
    echo str_replace('__BASE__', $base, file_get_contents(__DIR__ . '/shop.wsdl'));
    return true;
}
if ($method === 'GET' && $path === '/shop/types/shop-types.xsd') {
    header('Content-Type: text/xml; charset=utf-8');
    readfile(__DIR__ . '/types/shop-types.xsd');
    return true;
}
if ($method !== 'POST' || ($path !== '/shop/soap11' && $path !== '/shop/soap12')) {
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

// Reads, changes and writes the order table under an exclusive lock; returns what $change returns.
function with_orders(callable $change) {
    $file = getenv('LATHER_WSDL_STATE') ?: sys_get_temp_dir() . '/lather-shop-orders.json';
    $fh = fopen($file, 'c+');
    flock($fh, LOCK_EX);
    $orders = json_decode(stream_get_contents($fh) ?: '{}', true) ?: [];
    $result = $change($orders);
    ftruncate($fh, 0);
    rewind($fh);
    fwrite($fh, json_encode($orders));
    flock($fh, LOCK_UN);
    fclose($fh);
    return $result;
}

class Shop {
    // PlaceOrder(order) -> confirmation: total = sum(qty * price), lines = number of items,
    // city = the customer's city, status = the order's status (NEW when absent), currency echoed.
    // Any item with sku "NONE" raises the declared OutOfStock fault.
    public function PlaceOrder($in) {
        $order = $in->order;
        $total = 0.0;
        foreach ($order->item as $item) {
            if ($item->sku === 'NONE') {
                throw new SoapFault('Client', 'Out of stock: sku NONE', null,
                                    (object)['sku' => 'NONE', 'available' => 0], 'OutOfStock');
            }
            $total += (int)$item->qty * (float)$item->price;
        }
        $status = isset($order->status) ? (string)$order->status : 'NEW';
        $id = with_orders(function (&$orders) use ($status) {
            $id = sprintf('ORD-%d', count($orders) + 1);
            $orders[$id] = $status;
            return $id;
        });
        return ['confirmation' => [
            'orderId' => $id,
            'total' => ['_' => round($total, 2), 'currency' => $order->currency],
            'lines' => count($order->item),
            'city' => $order->customer->address->city,
            'status' => $status,
        ]];
    }

    // GetStatus(orderId) -> the status the order was placed with; NEW for an unknown id.
    public function GetStatus($in) {
        $id = (string)$in->orderId;
        $status = with_orders(function (&$orders) use ($id) { return $orders[$id] ?? 'NEW'; });
        return ['status' => $status];
    }

    public function Ping($in) {
        return ['message' => 'pong'];
    }
}

$server = new SoapServer(__DIR__ . '/shop.wsdl',
                         ['cache_wsdl' => WSDL_CACHE_NONE, 'features' => SOAP_SINGLE_ELEMENT_ARRAYS]);
$server->setClass('Shop');
$server->handle();
return true;
