<?php
/**
 * CPU profile of one request, for bench/wordpress.sh: loaded with auto_prepend_file into a
 * PHP-FPM started with the Excimer extension. Only a request that sends "X-WP-Stack-Profile: 1"
 * is sampled (Excimer, CPU-time timer, every 0.25 ms); its stacks are appended to the response
 * body, after the page, as one HTML comment in collapsed form ("frame;frame;frame count" lines).
 */
if (($_SERVER['HTTP_X_WP_STACK_PROFILE'] ?? '') === '1' && class_exists('ExcimerProfiler')) {
    $GLOBALS['wp_stack_profiler'] = new ExcimerProfiler();
    $GLOBALS['wp_stack_profiler']->setEventType(EXCIMER_CPU);
    $GLOBALS['wp_stack_profiler']->setPeriod(0.00025);
    $GLOBALS['wp_stack_profiler']->start();
    // Registered from inside the first shutdown function, so it runs after WordPress's own.
    register_shutdown_function(function () {
        register_shutdown_function(function () {
            $profiler = $GLOBALS['wp_stack_profiler'];
            $profiler->stop();
            echo "\n<!-- wp-stack-profile\n", str_replace('--', '- -', $profiler->getLog()->formatCollapsed()), "-->\n";
        });
    });
}
