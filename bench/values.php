<?php
/** The values every benchmark stores, shared by suite.php (side by side) and ops.php (callgrind). */

function wp_post_object(int $i): stdClass {
    $p = new stdClass();
    foreach ([
        'ID' => $i, 'post_author' => '1', 'post_date' => '2024-12-01 10:00:00', 'post_date_gmt' => '2024-12-01 10:00:00',
        'post_content' => str_repeat("<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit. </p>\n", 40),
        'post_title' => "Benchmark post $i", 'post_excerpt' => '', 'post_status' => 'publish', 'comment_status' => 'open',
        'ping_status' => 'open', 'post_password' => '', 'post_name' => "benchmark-post-$i", 'to_ping' => '', 'pinged' => '',
        'post_modified' => '2024-12-02 11:00:00', 'post_modified_gmt' => '2024-12-02 11:00:00', 'post_content_filtered' => '',
        'post_parent' => 0, 'guid' => "http://example.test/?p=$i", 'menu_order' => 0, 'post_type' => 'post',
        'post_mime_type' => '', 'comment_count' => '3', 'filter' => 'raw',
    ] as $k => $v) {
        $p->$k = $v;
    }
    return $p;
}

function values(): array {
    mt_srand(7);
    $noise = '';
    for ($i = 0; $i < 51200; $i += 4) {
        $noise .= pack('N', mt_rand());
    }
    return [
        'small string' => 'hello world, this is a small cached string',
        'int' => 123456789,
        '20-element mixed array' => [
            'ID' => 42, 'post_author' => '1', 'post_date' => '2024-12-01 10:00:00', 'post_title' => 'Hello world',
            'post_status' => 'publish', 'comment_status' => 'open', 'ping_status' => 'open', 'post_name' => 'hello-world',
            'menu_order' => 0, 'post_type' => 'post', 'comment_count' => 3, 'filter' => 'raw', 'sticky' => false,
            'score' => 3.14159, 'tags' => [1, 2, 3], 'meta' => ['a' => 'b'], 'guid' => 'http://example.test/?p=42',
            'post_parent' => 0, 'to_ping' => '', 'pinged' => null,
        ],
        'WordPress post object' => wp_post_object(42),
        '50 KB compressible string' => substr(str_repeat("<li class=\"menu-item\">Item text that repeats</li>\n", 1200), 0, 51200),
        '50 KB incompressible string' => substr($noise, 0, 51200),
    ];
}
