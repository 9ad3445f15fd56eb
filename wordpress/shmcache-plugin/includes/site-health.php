<?php
/**
 * Site Health: a direct test with the same verdict as Tools → shmcache.
 *
 * @package shmcache
 */

defined( 'ABSPATH' ) || exit;

add_filter( 'site_status_tests', 'shmcache_plugin_site_status_tests' );

/**
 * @param array $tests Site Health's tests.
 * @return array
 */
function shmcache_plugin_site_status_tests( $tests ) {
	if ( ! is_array( $tests ) ) {
		$tests = array();
	}
	if ( ! isset( $tests['direct'] ) || ! is_array( $tests['direct'] ) ) {
		$tests['direct'] = array();
	}
	$tests['direct']['shmcache'] = array(
		'label' => __( 'shmcache object cache', 'shmcache' ),
		'test'  => 'shmcache_plugin_site_health_test',
	);
	return $tests;
}

/**
 * The Site Health result: status good / recommended / critical, badge, description, actions.
 *
 * @return array{label:string, status:string, badge:array, description:string, actions:string, test:string}
 */
function shmcache_plugin_site_health_test() {
	$state   = shmcache_plugin_state();
	$verdict = shmcache_health_verdict( $state['info'], $state['context'] );
	$colors  = array(
		'good'        => 'blue',
		'recommended' => 'orange',
		'critical'    => 'red',
	);

	$description = '<p>' . esc_html__( 'shmcache keeps WordPress\'s object cache in shared memory, shared by every PHP-FPM worker.', 'shmcache' ) . '</p><ul>';
	foreach ( $verdict['reasons'] as $reason ) {
		$description .= '<li>' . esc_html( $reason ) . '</li>';
	}
	$description .= '</ul>';

	$actions = '';
	foreach ( $verdict['actions'] as $action ) {
		$actions .= '<p>' . esc_html( $action ) . '</p>';
	}
	if ( shmcache_plugin_user_can_manage() ) {
		$actions .= '<p><a href="' . esc_url( admin_url( 'tools.php?page=shmcache' ) ) . '">' . esc_html__( 'See Tools → shmcache', 'shmcache' ) . '</a></p>';
	}

	return array(
		'label'       => false !== stripos( $verdict['label'], 'shmcache' ) ? $verdict['label'] : 'shmcache: ' . $verdict['label'],
		'status'      => $verdict['status'],
		'badge'       => array(
			'label' => __( 'Performance', 'shmcache' ),
			'color' => $colors[ $verdict['status'] ],
		),
		'description' => $description,
		'actions'     => $actions,
		'test'        => 'shmcache',
	);
}
